import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newWebhookSecret, signatureHeader, signatureOf } from './signature.js';

test('the Standard Webhooks reference vector', () => {
  // From the Standard Webhooks specification's libraries' tests.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  assert.equal(signatureOf(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('during a rotation both secrets sign, space-separated, the new one first', () => {
  const [a, b] = [newWebhookSecret(), newWebhookSecret()];
  assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(a, b);
  assert.equal(signatureHeader([a, b], 'id', 1, '{}'), `${signatureOf(a, 'id', 1, '{}')} ${signatureOf(b, 'id', 1, '{}')}`);
});
