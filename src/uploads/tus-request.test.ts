import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorAnswer } from './tus-request.js';

test("errorAnswer: ours kept, tus's texts as messages, a client's mistake never a 5xx", () => {
  const cases: [number, string, boolean, { status: number; error: string; retryAfter?: string }][] = [
    [415, '{"error":"File type text/html is not allowed"}', false, { status: 415, error: 'File type text/html is not allowed' }],
    [500, '{"error":"Upload failed"}', false, { status: 500, error: 'Upload failed' }],
    [503, '{"error":"Service temporarily unavailable"}', false, { status: 503, error: 'Service temporarily unavailable', retryAfter: '5' }],
    [409, 'Upload-Offset conflict\n', false, { status: 409, error: 'Upload-Offset conflict' }],
    [412, 'Tus-Resumable Required\n', false, { status: 412, error: 'Tus-Resumable: 1.0.0 is required' }],
    [404, 'The file for this url was not found\n', false, { status: 404, error: 'Upload not found' }],
    [404, '', false, { status: 404, error: 'Upload not found' }],
    [403, 'Upload-Offset header required\n', false, { status: 400, error: 'Upload-Offset is required' }],
    [403, 'Content-Type header required\n', false, { status: 400, error: 'Content-Type is required' }],
    [501, 'Concatenation extension is not (yet) supported. Disable parallel uploads in the tus client.\n', false, { status: 400, error: 'Upload-Concat is not supported: send the file as one upload (no parallel uploads)' }],
    [501, 'creation-defer-length extension is not (yet) supported.\n', false, { status: 400, error: 'creation-defer-length extension is not (yet) supported.' }],
    [500, 'failed to acquire lock before timeout', false, { status: 423, error: 'The upload is busy with another request; try again in a moment', retryAfter: '1' }],
    [500, 'Something went wrong receiving the file\n', true, { status: 400, error: 'The request body broke off before its end' }],
    [500, 'Something went wrong receiving the file\n', false, { status: 500, error: 'Something went wrong receiving the file' }],
    [413, "upload's size exceeded\n", false, { status: 413, error: "upload's size exceeded" }],
    [410, 'The file for this url no longer exists\n', false, { status: 410, error: 'The file for this url no longer exists' }],
    [400, '{"not":"ours"}', false, { status: 400, error: '{"not":"ours"}' }],
    [400, '', false, { status: 400, error: 'Bad request' }],
    [500, '', false, { status: 500, error: 'Upload failed' }],
  ];
  for (const [status, text, broken, expected] of cases) assert.deepEqual(errorAnswer(status, text, broken), expected, `${status} ${JSON.stringify(text)}`);
});
