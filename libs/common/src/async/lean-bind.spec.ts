import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { installLeanAsyncBind } from './lean-bind';

describe('installLeanAsyncBind', () => {
  const original = AsyncResource.prototype.bind;
  beforeAll(() => installLeanAsyncBind());
  afterAll(() => {
    AsyncResource.prototype.bind = original;
  });

  it('runs a bound function in the context it was bound in, with its this, arguments and result', async () => {
    const storage = new AsyncLocalStorage<string>();
    const seen: Array<[string | undefined, unknown, number[]]> = [];
    const fn = function (this: unknown, a: number, b: number) {
      seen.push([storage.getStore(), this, [a, b]]);
      return a + b;
    };
    const bound = storage.run('request 1', () => AsyncResource.bind(fn));
    // Node's typings leave out bind's `thisArg`.
    const bindWithThis = AsyncResource.prototype.bind as (this: AsyncResource, f: typeof fn, thisArg: unknown) => typeof fn;
    const boundWithThis = storage.run('request 2', () => bindWithThis.call(new AsyncResource('test'), fn, 'given this'));
    await storage.run('elsewhere', async () => {
      await Promise.resolve();
      const target = { bound };
      expect(target.bound(1, 2)).toBe(3);
      expect(boundWithThis.call('ignored', 3, 4)).toBe(7);
    });
    expect(seen).toEqual([
      ['request 1', { bound }, [1, 2]],
      ['request 2', 'given this', [3, 4]],
    ]);
    expect(bound.length).toBe(2);
  });

  it('lets errors through and refuses what is not a function', () => {
    const bound = AsyncResource.bind(() => {
      throw new Error('from inside');
    });
    expect(() => bound()).toThrow('from inside');
    expect(() => AsyncResource.bind('not a function' as unknown as () => void)).toThrow(TypeError);
  });
});
