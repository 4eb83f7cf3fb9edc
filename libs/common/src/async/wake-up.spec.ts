import { WakeUp } from './wake-up';

describe('WakeUp', () => {
  it('wakes every waiter at a kick, and keeps a kick made while nobody waits for the next wait', async () => {
    const w = new WakeUp();
    const woken: number[] = [];
    const a = w.wait(60000).then(() => woken.push(1));
    const b = w.wait(60000).then(() => woken.push(2));
    w.kick();
    await Promise.all([a, b]);
    expect(woken.sort()).toEqual([1, 2]);
    w.kick();
    await w.wait(60000);
    // That kick is used up: the next wait runs to its end.
    let ended = false;
    await w.wait(10).then(() => (ended = true));
    expect(ended).toBe(true);
  });
});
