/**
 * The benchmark harness behind `pnpm bench`. A suite measures one area and returns figures; the
 * harness runs every suite in one process, one after another (never concurrently: 2 cores), and
 * writes one table to BENCHMARKS.md. Each figure keeps every run so the table shows medians, and a
 * figure with a baseline carries the baseline's runs measured in the same invocation, so a ratio
 * never compares numbers taken on different days or machines.
 */
import os from 'node:os';

export interface BenchContext {
  /** How many times each figure is measured; the table reports the median. */
  readonly runs: number;
  /** `--full`: the sizes and durations the issues name (e.g. 1,000 creates at 600/60 = 100 s). */
  readonly full: boolean;
  /** A scratch directory for this suite, removed after the run. */
  readonly tmpDir: string;
  log(message: string): void;
}

export interface BenchGoal {
  /** As the issue states it, e.g. "≥ 2,000 req/s" or "≥ 3× faster than baseline". */
  readonly text: string;
  readonly met: (median: number, baselineMedian: number | undefined) => boolean;
}

export interface BenchFigure {
  /** Stable key, `<suite>.<figure>`. */
  readonly id: string;
  /** The issue that set the figure's goal, where one did. */
  readonly issue?: number;
  readonly label: string;
  readonly unit: string;
  readonly better: 'lower' | 'higher';
  readonly runs: readonly number[];
  readonly baseline?: { readonly label: string; readonly runs: readonly number[] };
  readonly goal?: BenchGoal;
  /** Anything a reader needs to interpret the figure (sizes, rate limits, parallelism). */
  readonly note?: string;
}

export interface BenchSuite {
  readonly name: string;
  readonly issue?: number;
  run(context: BenchContext): Promise<BenchFigure[]>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs `measure` `runs` times, sequentially, and returns the values in order. */
export async function repeat(runs: number, measure: (run: number) => Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let run = 0; run < runs; run += 1) values.push(await measure(run));
  return values;
}

/** Wall time of `work` in milliseconds, on the monotonic clock. */
export async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * How the baseline compares, phrased so that > 1 always means "we are better": for lower-is-better
 * figures baseline/ours (3× faster), for higher-is-better ones ours/baseline.
 */
export function advantage(figure: BenchFigure): number | undefined {
  if (!figure.baseline) return undefined;
  const ours = median(figure.runs);
  const theirs = median(figure.baseline.runs);
  return figure.better === 'lower' ? theirs / ours : ours / theirs;
}

export function machineDescription(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const memoryGiB = Math.round(os.totalmem() / 2 ** 30);
  return `${os.cpus().length} × ${cpu}, ${memoryGiB} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}
