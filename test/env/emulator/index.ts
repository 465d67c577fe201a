export type { RoleName } from "./auth.ts";
export { type Control, type RemoteControl, remoteControl } from "./control.ts";
export type { CounterRow, FaultRule } from "./faults.ts";
export { DEFAULT_ADMIN_PASSWORD, type Emulator, type EmulatorOptions, startEmulator } from "./server.ts";
