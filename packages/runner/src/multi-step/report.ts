/** The document ./reporter.ts writes after a multi-step run, read back by ./run-spec.ts. */

export interface ReportLocation {
  file: string;
  line: number;
  column: number;
}

export interface ReportError {
  message: string;
  stack: string | null;
  location: ReportLocation | null;
}

export interface ReportStep {
  title: string;
  /** Playwright's category: `test.step` (the spec's own steps), `expect`, `pw:api` (page/request calls), `hook`, `fixture`. */
  category: string;
  /** Nesting depth; steps are listed depth-first. */
  depth: number;
  startTime: number;
  durationMs: number;
  error: ReportError | null;
  location: ReportLocation | null;
  /** Arguments of a Playwright API call (`url` of a request or `goto`, `locator`, …); null for other steps. */
  params: Record<string, string | number | boolean> | null;
}

export interface ReportTest {
  title: string;
  titlePath: string[];
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  expectedStatus: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  startTime: number;
  durationMs: number;
  errors: ReportError[];
  steps: ReportStep[];
  stdout: string[];
  stderr: string[];
}

export interface ReportFile {
  status: 'passed' | 'failed' | 'timedout' | 'interrupted';
  startTime: number;
  durationMs: number;
  tests: ReportTest[];
  /** Errors outside any test (the spec does not load, a worker crashed). */
  errors: ReportError[];
}
