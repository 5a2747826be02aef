// Masks secrets (the Voyage API key) in text bound for an output channel: traces show initializationOptions verbatim.

export const MASK = '********';
/** Shorter strings are not masked: they would blank out ordinary words and cannot be real API keys. */
const MIN_SECRET_LENGTH = 8;

export function redact(text: string, secrets: Iterable<string | undefined>): string {
    let result = text;
    for (const secret of secrets) {
        if (secret && secret.length >= MIN_SECRET_LENGTH && result.includes(secret)) {
            result = result.split(secret).join(MASK);
        }
    }
    return result;
}
