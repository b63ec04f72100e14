/** An OAuth flow could not be carried out: discovery, registration, authorization or the token endpoint failed. */
export class OAuthFlowError extends Error {
  /** The OAuth `error` code from the authorization server, when it sent one. */
  readonly code?: string;
  /** The HTTP status of the authorization server endpoint that failed, when one did. */
  readonly status?: number;
  constructor(message: string, options?: { cause?: unknown; code?: string; status?: number }) {
    super(`OAuth: ${message}`, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'OAuthFlowError';
    this.code = options?.code;
    this.status = options?.status;
  }
}
