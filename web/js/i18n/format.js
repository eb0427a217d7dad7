// Number formatting for people: the chosen language's separators, bytes in GB (10^9) or GiB (2^30).
// Byte counts arrive as exact integers from the core; this file only divides for display.
const UNIT_BYTES = { GB: 1e9, GiB: 2 ** 30 };

const finite = (x) => (Number.isFinite(x) ? x : 0);

// The page's two languages, written as Intl.NumberFormat writes en-US and de-DE (tests/node/format.test.mjs
// checks it digit for digit). Not Intl itself: building the first Intl.NumberFormat loads the locale's data,
// about 20 ms of the main thread before the first answer can be painted.
const SEPARATORS = {
  'en-US': { group: ',', decimal: '.', percent: '%' },
  'de-DE': { group: '.', decimal: ',', percent: '\u00a0%' },
};

// |x| rounded half away from zero at `maxFraction` digits, as Intl does: on the shortest decimal that reads back
// as x (String(x)), so 1.005 → "1.01" although the double is a little below 1.005. `shift` moves the point
// (2 for a percentage) on those digits, exactly.
function decimalDigits(x, minFraction, maxFraction, shift = 0) {
  const [mantissa, exponent = '0'] = String(Math.abs(x)).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  const point = whole.length + Number(exponent) + shift;  // digits[0 .. point) is the integer part
  const keep = point + maxFraction;
  if (keep < 0) digits = '0';
  else {
    const up = digits.length > keep && digits[keep] >= '5';
    digits = digits.slice(0, keep).padEnd(keep, '0');
    if (up) {
      let i = digits.length - 1;
      while (i >= 0 && digits[i] === '9') i--;
      digits = i < 0 ? `1${'0'.repeat(digits.length)}` : digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - 1 - i);
    }
  }
  digits = digits.padStart(maxFraction + 1, '0');
  let integer = digits.slice(0, digits.length - maxFraction).replace(/^0+(?=\d)/, '');
  let decimals = digits.slice(digits.length - maxFraction);
  while (decimals.length > minFraction && decimals.endsWith('0')) decimals = decimals.slice(0, -1);
  return { integer, decimals };
}

function numberText(separators, x, { minFraction = 0, maxFraction = 0, percent = false } = {}) {
  if (Math.abs(x) >= 1e21) {  // String(x) turns exponential here; never a byte count or a price, but exact all the same
    return new Intl.NumberFormat(separators === SEPARATORS['de-DE'] ? 'de-DE' : 'en-US', percent
      ? { style: 'percent', maximumFractionDigits: maxFraction }
      : { minimumFractionDigits: minFraction, maximumFractionDigits: maxFraction }).format(x);
  }
  const { integer, decimals } = decimalDigits(x, minFraction, maxFraction, percent ? 2 : 0);
  const grouped = integer.replace(/\B(?=(\d{3})+$)/g, separators.group);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${grouped}${decimals ? separators.decimal + decimals : ''}${percent ? separators.percent : ''}`;
}

export function makeFormat(locale = 'en', unit = 'GB') {
  const separators = SEPARATORS[locale] ?? SEPARATORS['en-US'];
  const nf = (options) => ({ format: (x) => numberText(separators, x, options) });
  const two = nf({ minFraction: 2, maxFraction: 2 });
  const one = nf({ minFraction: 1, maxFraction: 1 });
  const integer = nf({ maxFraction: 0 });
  const percent = nf({ percent: true, maxFraction: 1 });
  const scale = UNIT_BYTES[unit] ?? UNIT_BYTES.GB;
  const digitsFormat = (digits) => nf({ maxFraction: digits });
  return {
    locale: SEPARATORS[locale] ? locale : 'en-US',
    unit: UNIT_BYTES[unit] ? unit : 'GB',
    /** "18.51" in the chosen unit, no suffix (table cells). */
    amount: (bytes) => two.format(finite(bytes) / scale),
    /** "18.51 GB" */
    bytes: (bytes) => `${two.format(finite(bytes) / scale)} ${unit}`,
    /** "18.5 GB": one decimal, for dense lists */
    bytesShort: (bytes) => `${one.format(finite(bytes) / scale)} ${unit}`,
    /** signed, with a real minus sign */
    signedShort: (bytes) => `${bytes < 0 ? '−' : ''}${one.format(Math.abs(finite(bytes)) / scale)} ${unit}`,
    count: (n) => integer.format(finite(n)),
    share: (part, whole) => percent.format(whole > 0 ? finite(part) / whole : 0),
    /** "8.03 B", German "8,03 Mrd." (Milliarden: the German billion is 10^12) */
    billions: (n) => `${two.format(finite(n) / 1e9)} ${locale === 'de-DE' ? 'Mrd.' : 'B'}`,
    /** plain number for axes */
    number: (x, digits = 0) => digitsFormat(digits).format(finite(x)),
    /** exactly `digits` decimals: prices ("0.50") */
    fixed: (x, digits) => nf({ minFraction: digits, maxFraction: digits }).format(finite(x)),
    unitBytes: scale,
  };
}
