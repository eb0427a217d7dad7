// The page writes numbers without Intl (web/js/i18n/format.js says why); here every form it uses is checked
// against Intl.NumberFormat itself, the independent reference, for en-US and de-DE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeFormat } from '../../web/js/i18n/format.js';
import { messageText } from '../../web/js/i18n/messages.js';
import { rangeText } from '../../web/js/render/view.js';

// Halves at every digit, the doubles just below a half (1.005, 0.145), carries through nines, zeros of both
// signs, tiny and huge magnitudes, and a seeded spread of ordinary figures.
const values = [0, -0, 0.5, 1.5, 2.5, -2.5, 1.005, 0.145, 0.0145, 1.45, 9.995, 99.95, 999.5, 9999.5, 0.999, 1e-7, 5e-7,
  -1e-7, 123456789.125, 1234.5, 1000, 999999.995, 0.05, -0.04, 12.3456, 1e20, 9.999999e20, 2 ** 53, 0.1 + 0.2];
let seed = 12345;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
for (let i = 0; i < 2000; i++) values.push((random() - 0.3) * 10 ** Math.floor(random() * 16 - 6));

for (const locale of ['en-US', 'de-DE']) {
  test(`numbers are written as Intl.NumberFormat writes ${locale}`, () => {
    const f = makeFormat(locale, 'GB');
    const intl = (options) => new Intl.NumberFormat(locale, options);
    const forms = [
      ['count', (x) => f.count(x), intl({ maximumFractionDigits: 0 })],
      ['number 0', (x) => f.number(x), intl({ maximumFractionDigits: 0 })],
      ['number 1', (x) => f.number(x, 1), intl({ maximumFractionDigits: 1 })],
      ['number 3', (x) => f.number(x, 3), intl({ maximumFractionDigits: 3 })],
      ['amount', (x) => f.amount(x * 1e9), intl({ minimumFractionDigits: 2, maximumFractionDigits: 2 })],
      ['share', (x) => f.share(x, 1), intl({ style: 'percent', maximumFractionDigits: 1 })],
      ['fixed 2', (x) => f.fixed(x, 2), intl({ minimumFractionDigits: 2, maximumFractionDigits: 2 })],
    ];
    for (const [name, ours, reference] of forms) {
      for (const x of values) {
        const input = name === 'amount' ? (x * 1e9) / 1e9 : x;  // what amount() divides back to
        assert.equal(ours(x), reference.format(input), `${name}(${x})`);
      }
    }
  });
}

test('the two languages differ where they should', () => {
  // By hand: English groups with commas and a point; German with points and a comma, and a space before %.
  assert.equal(makeFormat('en-US').bytes(1234567890123), '1,234.57 GB');
  assert.equal(makeFormat('de-DE').bytes(1234567890123), '1.234,57 GB');
  assert.equal(makeFormat('de-DE').share(1, 8), '12,5\u00a0%');
  assert.equal(makeFormat('en-US').share(1, 8), '12.5%');
  assert.equal(makeFormat('en-US', 'GiB').bytesShort(2 ** 30 * 1.25), '1.3 GiB');
});

test('a core figure below 0.1 keeps four significant digits in German, as the English (printf %g) does', () => {
  // The reference is Intl itself (maximumSignificantDigits 4); below 10^-4 %g writes a power of ten, by hand here.
  const f = makeFormat('de-DE', 'GB');
  const moe = (x) => messageText('de', f, {
    id: 'speed.how.prefill_moe', args: { moe_tflop: x, share_low: 8, share_high: 20, assumed: { text: '' } },
  }).split(' in den ')[0].slice(2);
  const intl = new Intl.NumberFormat('de-DE', { maximumSignificantDigits: 4 });
  for (const x of [0.0004, 0.0009995, 0.001234, 0.01, 0.05678, -0.0123, 0.00012345, 0.09999]) {
    assert.equal(moe(x), intl.format(x), `${x}`);
  }
  assert.equal(moe(0.00001234), '1,234e-05');
  assert.equal(moe(9.99996e-5), '0,0001');  // rounds up to 10^-4, which %g writes without a power
  assert.equal(moe(0.1234), '0,123');  // from 0.1 up the three decimals as before
  assert.equal(moe(2.5), '2,5');
});

test('a speed range below one keeps two significant digits at its smaller end, in both languages', () => {
  // By hand: 0.0437–0.0612 t/s at one decimal would read "0"; 1 − floor(log10 0.0437) = 3 decimals.
  assert.equal(rangeText({ low: 0.0437, high: 0.0612 }, makeFormat('en-US'), 1), '0.044–0.061');
  assert.equal(rangeText({ low: 0.0437, high: 0.0612 }, makeFormat('de-DE'), 1), '0,044–0,061');
  assert.equal(rangeText({ low: 0.00041, high: 0.0009 }, makeFormat('de-DE'), 1), '0,00041–0,0009');
  assert.equal(rangeText({ low: 0.6, high: 1.4 }, makeFormat('en-US'), 0), '0.6–1.4');
  assert.equal(rangeText({ low: 12.34, high: 20.06 }, makeFormat('de-DE'), 1), '12,3–20,1');  // from one up as before
  assert.equal(rangeText({ low: 0.5, high: 0.8 }, makeFormat('en-US'), 2, true), '0.50–0.80');  // prices: fixed digits
});
