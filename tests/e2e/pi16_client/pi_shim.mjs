// pi 1.6.0's RpcClient starts `node <cliPath> --mode rpc ...`: this cliPath runs the pi under test
// (PI_UNDER_TEST) with the same arguments and stdio, and passes signals and the exit status through.
import { spawn } from "node:child_process";

const child = spawn(process.env.PI_UNDER_TEST, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
