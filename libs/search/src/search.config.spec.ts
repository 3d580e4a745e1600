import { candidateWindow } from './search.config';

describe('candidateWindow', () => {
  it('takes top_k × factor candidates for small top_k, at least the floor', () => {
    expect(candidateWindow(1, 5)).toBe(50);
    expect(candidateWindow(10, 5)).toBe(50);
    expect(candidateWindow(20, 5)).toBe(100);
    expect(candidateWindow(25, 5)).toBe(125);
    expect(candidateWindow(10, 5, 200)).toBe(200);
  });

  it('grows by top_k alone past a margin of 20 × factor', () => {
    expect(candidateWindow(26, 5)).toBe(126);
    expect(candidateWindow(100, 5)).toBe(200);
    expect(candidateWindow(1000, 5)).toBe(1100);
    expect(candidateWindow(100, 10)).toBe(300);
    expect(candidateWindow(100, 1)).toBe(100);
  });
});
