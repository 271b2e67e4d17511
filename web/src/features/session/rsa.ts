/**
 * loginpass: base64 RSA PKCS#1 v1.5 of the password with getconfig's PEM key.
 * WebCrypto has no PKCS#1 v1.5 encryption, so jsencrypt does it; it is imported on
 * demand to stay out of the first-load bundle.
 */
export async function encryptPassword(password: string, publicKeyPem: string): Promise<string> {
  const { JSEncrypt } = await import('jsencrypt');
  const rsa = new JSEncrypt();
  rsa.setPublicKey(publicKeyPem);
  const out = rsa.encrypt(password);
  if (out === false) throw new Error('RSA encryption failed');
  return out;
}
