import { ServiceError } from '@askdata/common';
import { checkOrigins, isOrigin, kindOfKey } from './key-kinds';

describe('key kinds', () => {
  it('tells the kind from the prefix', () => {
    expect(kindOfKey('ak_abc')).toBe('secret');
    expect(kindOfKey('pk_abc')).toBe('publishable');
    expect(kindOfKey('sk_abc')).toBeNull();
  });

  it('takes origins only exactly as a browser sends them', () => {
    for (const good of ['https://shop.example', 'http://localhost:8080', 'https://xn--bcher-kva.example', 'http://127.0.0.1:3000', 'http://[::1]:8080']) {
      expect(isOrigin(good)).toBe(true);
    }
    for (const bad of [
      'https://shop.example/',
      'https://Shop.example',
      'https://shop.example:443',
      'https://shop.example/path',
      'https://shop.example?x=1',
      'https://user@shop.example',
      'ftp://shop.example',
      'shop.example',
      'null',
      '*',
      '',
      42,
      null,
    ]) {
      expect(isOrigin(bad)).toBe(false);
    }
  });

  it('requires origins of publishable keys and refuses them on secret keys, naming the field', () => {
    expect(checkOrigins('publishable', ['https://a.example', 'https://a.example', 'http://b.example:81'])).toEqual(['https://a.example', 'http://b.example:81']);
    expect(checkOrigins('secret', undefined)).toEqual([]);
    const fields = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return Object.keys((e as ServiceError).details ?? {});
      }
      return [];
    };
    expect(fields(() => checkOrigins('publishable', undefined))).toEqual(['origins']);
    expect(fields(() => checkOrigins('publishable', []))).toEqual(['origins']);
    expect(fields(() => checkOrigins('publishable', ['https://a.example', 'https://b.example/']))).toEqual(['origins.1']);
    expect(fields(() => checkOrigins('secret', ['https://a.example']))).toEqual(['origins']);
  });
});
