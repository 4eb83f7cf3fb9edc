import { AsyncResource } from 'node:async_hooks';

type Callable = (...args: never[]) => unknown;

/**
 * Replaces `AsyncResource.prototype.bind` (and so `AsyncResource.bind`, which NestJS calls for every interceptor of
 * every request) by one without the deprecated `asyncResource` accessor (DEP0172). Node builds that accessor with
 * `util.deprecate`, which makes a closure of each bind a prototype: V8's young-generation collections then keep it,
 * and the request it closes over, until the next full collection. Under load every request's objects were promoted
 * that way, making each scavenge take milliseconds. The bound function runs `fn` in the resource's async scope with
 * its `this` (or `thisArg`) and arguments, and has `fn`'s length, as Node's does.
 */
export function installLeanAsyncBind(): void {
  AsyncResource.prototype.bind = function bind<F extends Callable>(this: AsyncResource, fn: F, thisArg?: unknown): F {
    return boundTo(this, fn, thisArg);
  };
}

function boundTo<F extends Callable>(resource: AsyncResource, fn: F, thisArg: unknown): F {
  if (typeof fn !== 'function') throw new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`);
  const run = fn as unknown as (this: unknown, ...args: unknown[]) => unknown;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(run, this, ...args);
        }
      : (...args: unknown[]) => resource.runInAsyncScope(run, thisArg, ...args);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound as unknown as F;
}
