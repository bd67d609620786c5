// Check digits of numbers that are secrets only when real: a card number passes Luhn, an IBAN
// mod 97, a Chinese resident ID its ISO 7064 check; an order number or a phone number rarely does.

const digitsOf = (text: string) => text.replace(/[^0-9A-Za-z]/g, '');

/** Luhn (ISO/IEC 7812): payment card numbers. */
export function passesLuhn(number: string): boolean {
  const digits = digitsOf(number);
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A payment card: 13 to 19 digits, an issuer's first digit (2 to 6), and Luhn. */
export function isCardNumber(number: string): boolean {
  const digits = digitsOf(number);
  return /^[2-6]\d{12,18}$/.test(digits) && passesLuhn(digits);
}

/** ISO 13616: the country and check digits moved to the end, letters as 10..35, mod 97 is 1. */
export function isIban(iban: string): boolean {
  const compact = digitsOf(iban).toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const moved = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const char of moved) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** GB 11643: an 18-character Chinese resident ID whose last character is its check. */
export function isChineseId(id: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  const sum = ID_WEIGHTS.reduce((total, weight, i) => total + weight * Number(id[i]), 0);
  return ID_CHECK[sum % 11] === id[17]?.toUpperCase();
}
