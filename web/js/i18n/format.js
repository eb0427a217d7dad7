// Number formatting for people: locale from the chosen language (Intl), bytes in GB (10^9) or GiB (2^30).
// Byte counts arrive as exact integers from the core; this file only divides for display.
const UNIT_BYTES = { GB: 1e9, GiB: 2 ** 30 };

const finite = (x) => (Number.isFinite(x) ? x : 0);

export function makeFormat(locale = 'en', unit = 'GB') {
  const nf = (options) => new Intl.NumberFormat(locale, options);
  const two = nf({ minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const one = nf({ minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const integer = nf({ maximumFractionDigits: 0 });
  const percent = nf({ style: 'percent', maximumFractionDigits: 1 });
  const scale = UNIT_BYTES[unit] ?? UNIT_BYTES.GB;
  // Building an Intl.NumberFormat costs far more than formatting with one (the charts format hundreds of ticks).
  const byDigits = [];
  const digitsFormat = (digits) => (byDigits[digits] ??= nf({ maximumFractionDigits: digits }));
  return {
    locale,
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
    billions: (n) => `${two.format(finite(n) / 1e9)} B`,
    /** plain number for axes */
    number: (x, digits = 0) => digitsFormat(digits).format(finite(x)),
    unitBytes: scale,
  };
}
