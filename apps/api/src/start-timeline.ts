import { performance } from 'perf_hooks';

/**
 * Where a start's time went, step by step, from the process's own start (`performance.now()` counts
 * from it): the first step is what Node and the module loading took before `main` ran.
 */
export class StartTimeline {
  private readonly steps: Array<{ name: string; ms: number }> = [];
  private last: number;

  constructor(first = 'node and modules') {
    this.last = performance.now();
    this.steps.push({ name: first, ms: this.last });
  }

  /** Closes the step running since the previous mark (or since the process started), named `name`. */
  mark(name: string): void {
    const now = performance.now();
    this.steps.push({ name, ms: now - this.last });
    this.last = now;
  }

  /** Milliseconds since the process started. */
  get totalMs(): number {
    return this.last;
  }

  toString(): string {
    return `${Math.round(this.totalMs)} ms (${this.steps.map((s) => `${s.name} ${Math.round(s.ms)}`).join(', ')})`;
  }
}
