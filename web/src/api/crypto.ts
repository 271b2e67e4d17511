/**
 * WebCrypto primitives of the request layer (docs/protocol.md): the HMAC-SHA256
 * Sign and the AES-128-CBC/PKCS7 envelope. No crypto package: both are native.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const subtle = () => globalThis.crypto.subtle;

/** Reverses a string by Unicode code points (not UTF-16 units), as the server does. */
export const reverseCodePoints = (text: string) => Array.from(text).reverse().join('');

const toHex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Lowercase hex HMAC-SHA256. WebCrypto refuses an empty HMAC key; HMAC pads keys
 * with zero bytes to the block size, so the key [0x00] is the same key as "".
 */
export async function hmacSha256Hex(key: string, message: string): Promise<string> {
  const raw = key === '' ? new Uint8Array([0]) : encoder.encode(key);
  const cryptoKey = await subtle().importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return toHex(await subtle().sign('HMAC', cryptoKey, encoder.encode(message)));
}

export async function sha256Hex(message: string): Promise<string> {
  return toHex(await subtle().digest('SHA-256', encoder.encode(message)));
}

export type KeyPair = readonly [key: string, iv: string];

async function aesKey([key]: KeyPair, usage: 'encrypt' | 'decrypt') {
  return subtle().importKey('raw', encoder.encode(key), { name: 'AES-CBC' }, false, [usage]);
}

/** base64(AES-128-CBC/PKCS7(utf8 text)) with the pair's key and iv. */
export async function aesEncrypt(plain: string, pair: KeyPair): Promise<string> {
  const key = await aesKey(pair, 'encrypt');
  const cipher = await subtle().encrypt({ name: 'AES-CBC', iv: encoder.encode(pair[1]) }, key, encoder.encode(plain));
  return toBase64(new Uint8Array(cipher));
}

export async function aesDecrypt(base64: string, pair: KeyPair): Promise<string> {
  const key = await aesKey(pair, 'decrypt');
  const plain = await subtle().decrypt({ name: 'AES-CBC', iv: encoder.encode(pair[1]) }, key, fromBase64(base64));
  return decoder.decode(plain);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** n random letters and digits (request ids, captcha uids). */
export function randomAlnum(n: number): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(n));
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
}

/** A uniform random integer in [0, n). */
export function randomIndex(n: number): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! % n;
}
