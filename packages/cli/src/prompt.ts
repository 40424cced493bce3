/** The one question apply asks, answered on a TTY only. */
import { createInterface } from 'node:readline';
import { CliError } from './errors.js';

export type Answer = 'yes' | 'no' | 'interrupted';

function isCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** Asks `question (yes/no)`; only the word "yes" approves. Refuses without a TTY or under CI. */
export async function confirm(question: string): Promise<Answer> {
  if (isCi() || process.stdin.isTTY !== true) {
    throw new CliError(
      `refusing to apply without confirmation: ${isCi() ? 'CI=true' : 'standard input is not a terminal'}. ` +
        'Review the plan above and pass --auto-approve, or apply a reviewed plan file with vigil apply <file>.',
    );
  }
  const readline = createInterface({ input: process.stdin, output: process.stdout });
  return new Promise<Answer>((resolve) => {
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      readline.close();
      resolve(answer);
    };
    readline.on('SIGINT', () => {
      process.stdout.write('\n');
      settle('interrupted');
    });
    readline.on('close', () => settle('no'));
    readline.question(`\n${question} Only "yes" will be accepted.\n  Enter a value (yes/no): `, (text) => settle(text.trim() === 'yes' ? 'yes' : 'no'));
  });
}
