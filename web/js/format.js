// Number formatting for people. Byte counts arrive as exact integers from the core.
const GB = 1e9;
const GiB = 2 ** 30;

const twoDecimals = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

const finite = (x) => (Number.isFinite(x) ? x : 0);

export const gb = (bytes) => twoDecimals.format(finite(bytes) / GB);
export const gib = (bytes) => twoDecimals.format(finite(bytes) / GiB);
export const gibShort = (bytes) => oneDecimal.format(finite(bytes) / GiB);
export const count = (n) => integer.format(finite(n));
export const share = (part, whole) => percent.format(whole > 0 ? finite(part) / whole : 0);
export const billions = (n) => `${twoDecimals.format(finite(n) / 1e9)} B`;
