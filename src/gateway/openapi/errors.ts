/** A spec that cannot be turned into tools (unreadable, unsupported version, external $ref, no base URL...). */
export class OpenApiError extends Error {
  override name = 'OpenApiError';
}
