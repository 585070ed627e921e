/** The only IPC channels: one for calls, one to start the event stream, one for events. */
export const CALL_CHANNEL = 'memdir:call';
export const SUBSCRIBE_CHANNEL = 'memdir:subscribe';
export const EVENT_CHANNEL = 'memdir:event';
