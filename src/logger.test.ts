import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logFormatFor } from './logger.js';

test('logFormatFor: pretty at a terminal, JSON otherwise; LOG_FORMAT decides when it says so (issue 33, item 9)', () => {
  const table: [Parameters<typeof logFormatFor>[0], boolean | undefined, 'json' | 'pretty'][] = [
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['auto', undefined, 'json'], // a pipe, a file, a service manager: isTTY is not set
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
    ['pretty', undefined, 'pretty'],
  ];
  for (const [setting, isTTY, expected] of table) assert.equal(logFormatFor(setting, isTTY), expected, `${setting}, isTTY ${isTTY}`);
});
