import { TimeSlices } from './time-slices';

describe('TimeSlices', () => {
  it('lets a timer that falls due run in the middle of a long loop', async () => {
    const slices = new TimeSlices(2);
    let timerFiredAt = -1;
    setTimeout(() => (timerFiredAt = i), 0);
    let i = 0;
    const until = performance.now() + 50;
    for (; performance.now() < until; i++) {
      if (slices.due()) await slices.next();
    }
    expect(timerFiredAt).toBeGreaterThan(0);
    expect(timerFiredAt).toBeLessThan(i);
  });

  it('does not yield before its slice has run its time', () => {
    const slices = new TimeSlices(60_000);
    expect(slices.due()).toBe(false);
  });
});
