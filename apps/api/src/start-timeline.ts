import { performance } from 'perf_hooks';

/**
 * Where a start's time went, step by step, from the process's own start (`performance.now()` and
 * `process.cpuUsage()` count from it): the first step is what Node and the module loading took before
 * `main` ran. Each step has its wall time and the CPU time the process spent in it (all its threads:
 * on a loaded machine the CPU time is the steadier measure).
 */
export class StartTimeline {
  private readonly steps: Array<{ name: string; ms: number; cpuMs: number }> = [];
  private last: number;
  private lastCpu: number;

  constructor(first = 'node and modules') {
    this.last = performance.now();
    this.lastCpu = cpuMs();
    this.steps.push({ name: first, ms: this.last, cpuMs: this.lastCpu });
  }

  /** Closes the step running since the previous mark (or since the process started), named `name`. */
  mark(name: string): void {
    const now = performance.now();
    const cpu = cpuMs();
    this.steps.push({ name, ms: now - this.last, cpuMs: cpu - this.lastCpu });
    this.last = now;
    this.lastCpu = cpu;
  }

  /** Milliseconds since the process started. */
  get totalMs(): number {
    return this.last;
  }

  toString(): string {
    return `${Math.round(this.totalMs)} ms, ${Math.round(this.lastCpu)} ms CPU (${this.steps.map((s) => `${s.name} ${Math.round(s.ms)}/${Math.round(s.cpuMs)}`).join(', ')}; wall/CPU ms)`;
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
