export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
