// Jest setup (jest.config.js, setupFiles): keeps every better-sqlite3 object a test file makes alive
// until its process exits, as the service does on Node 24 (src/db/native-handles.ts): there, an
// object collected while Jest's vm context is current aborts the process.
import { keepNativeHandles } from "../../src/db/native-handles";

keepNativeHandles();
