import { behindInFlight, disjointRun, followers, Waiting } from './group-rules';

const w = (id: string, items_count: number, first = true): Waiting => ({ id, items_count, first });

describe('group rules', () => {
  it('groups leading first attempts in order while their items fit the room', () => {
    expect(followers([w('a', 3), w('b', 4), w('c', 1)], 7)).toEqual(['a', 'b']);
    expect(followers([w('a', 3), w('b', 4)], 2)).toEqual([]);
  });

  it('ends a group at an upsert being retried, even when later ones would fit', () => {
    expect(followers([w('a', 1), w('b', 1, false), w('c', 1)], 100)).toEqual(['a']);
  });

  it('looks behind the upserts in flight only when they lead the project', () => {
    const unfinished = [w('a', 1), w('b', 1), w('c', 1)];
    expect(behindInFlight(unfinished, new Set(['a', 'b'])).map((u) => u.id)).toEqual(['c']);
    // 'a' is not this process's: 'b' and 'c' must wait for it.
    expect(behindInFlight(unfinished, new Set(['b']))[0].id).toBe('a');
  });

  it('starts early only the leading upserts that touch no item in flight', () => {
    const items: Record<string, string[]> = { u1: ['x', 'y'], u2: ['z'], u3: ['x'], u4: ['w'] };
    const held = new Set(['x']);
    expect(disjointRun(['u2', 'u4'], (id) => items[id], held)).toEqual(['u2', 'u4']);
    expect(disjointRun(['u2', 'u3', 'u4'], (id) => items[id], held)).toEqual(['u2']);
    expect(disjointRun(['u1', 'u2'], (id) => items[id], held)).toEqual([]);
    expect(disjointRun(['u2', 'gone', 'u4'], (id) => items[id], held)).toEqual(['u2']);
  });
});
