export const GUARD_MESSAGE: string;
export const GUARD_CHANNEL: string;
export function isLoopback(host: string): boolean;
export function takeRefused(): string[];
