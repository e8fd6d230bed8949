// Scrubs a destination's error message before it is recorded, logged or published in its status: the
// messages quote destinations' answers and URLs, and the status is readable by anyone with an API key.

/** A status message is a sentence or two; a destination's answer quoted at length is cut here. */
export const MAX_MESSAGE_LENGTH = 1_000;

const REDACTED = '[redacted]';
// scheme://user:password@host: the credentials part of an authority.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
// Query parameters that conventionally carry a credential, e.g. ?token=…, &X-Amz-Signature=….
const SECRET_PARAMS = /([?&](?:access_token|api[_-]?key|auth|key|password|passwd|pwd|secret|sig|signature|token|x-amz-credential|x-amz-security-token|x-amz-signature)=)[^&\s#"']*/gi;
/** Shorter strings would blank out ordinary words; secrets of a destination are longer (16 characters for http). */
const MIN_SECRET_LENGTH = 8;

/** The message without URL credentials, credential-like query values and any of `secrets`, at most MAX_MESSAGE_LENGTH long. */
export function redactMessage(message: string, secrets: readonly string[] = []): string {
  let out = message.replace(URL_CREDENTIALS, `$1${REDACTED}@`).replace(SECRET_PARAMS, `$1${REDACTED}`);
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  return out.length > MAX_MESSAGE_LENGTH ? `${out.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : out;
}
