/** Where requests go: a base URL (a path prefix is kept) and the key that goes with it. */
export interface Target {
  baseUrl: string;
  apiKey: string;
}
