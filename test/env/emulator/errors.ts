// Harbor's error model: every failure is {"errors":[{"code","message"}]} with the status its code
// maps to; any 5xx is masked as UNKNOWN / "internal server error" (the cause is only logged).

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const badRequest = (message: string) => new ApiError(400, "BAD_REQUEST", message);
export const unauthorized = () => new ApiError(401, "UNAUTHORIZED", "unauthorized");
export const forbidden = (message = "forbidden") => new ApiError(403, "FORBIDDEN", message);
export const denied = (message: string) => new ApiError(403, "DENIED", message);
export const notFound = (message: string) => new ApiError(404, "NOT_FOUND", message);
export const conflict = (message: string) => new ApiError(409, "CONFLICT", message);
export const precondition = (message: string) => new ApiError(412, "PRECONDITION", message);
export const internal = (message: string) => new ApiError(500, "UNKNOWN", message);
/**
 * Swagger-level binding/validation failures (before the handler runs): go-openapi's composite
 * error, "validation failure list:" and one line per failure. A body model's own validation is such
 * a list inside this one (see `failureList`), hence Harbor's doubled prefix for a body that
 * decoded but did not validate.
 */
export const unprocessable = (lines: string[]) =>
  new ApiError(422, "UNPROCESSABLE_ENTITY", failureList(lines));

/** One composite validation error's text: every nested model adds a list of its own. */
export const failureList = (lines: string[]) => `validation failure list:\n${lines.join("\n")}`;

/**
 * An error with no body at all: a few Harbor handlers answer like this (e.g. user-group create
 * without a group name gives a bare 400).
 */
export class BareError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`bare ${status}`);
    this.status = status;
  }
}

export function errorBody(e: ApiError): { status: number; body: string } {
  if (e.status >= 500) {
    return { status: e.status, body: envelope("UNKNOWN", "internal server error") };
  }
  return { status: e.status, body: envelope(e.code, e.message) };
}

export function envelope(code: string, message: string): string {
  return `${JSON.stringify({ errors: [{ code, message }] })}\n`;
}
