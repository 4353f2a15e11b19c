/** What the hidden prompt needs of a terminal: its keys, raw, and a place to write the question. */
export interface PromptInput {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}
export interface PromptOutput {
  write(text: string): unknown;
}

export class PromptError extends Error {}

/**
 * One line typed at a terminal without showing it (a password): the terminal in raw mode, so
 * nothing is echoed, not even stars; Backspace takes back a character, Enter ends the line,
 * Ctrl-C or Ctrl-D gives up. Without a terminal it refuses: a password is never read from
 * wherever standard input happens to point, and never shown.
 */
export function readHidden(question: string, input: PromptInput, output: PromptOutput): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return Promise.reject(new PromptError('standard input is not a terminal'));
  const setRawMode = input.setRawMode.bind(input);
  // Echo off before the question shows: a key typed the moment it appears is not shown either.
  setRawMode(true);
  output.write(question);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null) => {
      input.off('data', onData);
      setRawMode(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return finish(null);
        if (ch === '\u0003' || ch === '\u0004') return finish(new PromptError('cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}

/** A new password typed twice at the terminal, the two the same; or the reason not. */
export async function askNewPassword(input: PromptInput, output: PromptOutput): Promise<string> {
  const first = await readHidden('Password (not shown): ', input, output);
  const again = await readHidden('The same password again: ', input, output);
  if (first !== again) throw new PromptError('the two passwords differ');
  return first;
}
