// Drives `pi --mode rpc` through every command of pi 1.6.0's docs/rpc-commands.md with 1.6.0's own
// RpcClient (its path in RPC_CLIENT_JS), and prints one JSON object: what each step returned.
// Run by tests/e2e/test_pi16_rpc_client.py against the project's loopback fake LLM server.
import { pathToFileURL } from "node:url";
import path from "node:path";

const { RpcClient } = await import(pathToFileURL(process.env.RPC_CLIENT_JS).href);
const client = new RpcClient({
  cliPath: path.join(path.dirname(new URL(import.meta.url).pathname), "pi_shim.mjs"),
  cwd: process.env.PROJECT_DIR,
  args: ["--provider", "fake", "--model", "fake-model"],
});
const out = {};
const step = async (name, fn) => {
  try {
    out[name] = { ok: true, value: await fn() };
  } catch (error) {
    out[name] = { ok: false, error: String(error?.message ?? error) };
  }
};
const types = (events) => events.map((e) => e.type);

await client.start();
await step("getState", () => client.getState());
await step("promptAndWait", async () => types(await client.promptAndWait("hello")));
await step("toolTurn", async () => {
  const events = await client.promptAndWait("run echo");
  const end = events.find((e) => e.type === "tool_execution_end");
  const update = events.find((e) => e.type === "message_update");
  return { types: types(events), toolEnd: end, updateKeys: Object.keys(update) };
});
await step("queueing", async () => {
  const events = [];
  const stop = client.onEvent((e) => events.push(e));
  const idle = client.waitForIdle(30000);
  const started = await client.prompt("slow");
  const steer = await client.steer("steer-now");
  const follow = await client.followUp("follow-later");
  const queuedPrompt = await client.prompt("as-follow-up", undefined, "followUp");
  let busy;
  try {
    await client.prompt("no behaviour");
  } catch (error) {
    busy = String(error.message);
  }
  await idle;
  stop();
  const users = events.filter((e) => e.type === "message_end" && e.message.role === "user");
  return {
    dispositions: [started, steer, follow, queuedPrompt],
    busy,
    users: users.map((e) => e.message.content.map((c) => c.text).join("")),
    last: events.at(-1),
  };
});
await step("abort", async () => {
  const seen = new Promise((resolve) => {
    const stop = client.onEvent((e) => {
      if (e.type === "message_start" && e.message.role === "assistant") {
        stop();
        resolve();
      }
    });
  });
  const settled = new Promise((resolve) => {
    const stop = client.onEvent((e) => {
      if (e.type === "agent_settled") {
        stop();
        resolve(e);
      }
    });
  });
  await client.prompt("hang");
  await seen;
  await client.abort();
  return await settled;
});
await step("clearQueue", () => client.clearQueue());
await step("collectEvents", async () => {
  const collected = client.collectEvents(30000);
  await client.prompt("collect");
  return types(await collected).slice(-2);
});
await step("getMessages", async () => (await client.getMessages()).map((m) => m.role));
await step("getLastAssistantText", () => client.getLastAssistantText());
await step("getAvailableModels", async () => (await client.getAvailableModels()).map((m) => `${m.provider}/${m.id}`));
await step("setModel", async () => (await client.setModel("fake", "fake-model")).id);
await step("setModelUnknown", () => client.setModel("nope", "missing"));
await step("cycleModel", () => client.cycleModel());
await step("getAvailableThinkingLevels", () => client.getAvailableThinkingLevels());
await step("setThinkingLevel", async () => {
  await client.setThinkingLevel("high");
  return (await client.getState()).thinkingLevel;
});
await step("cycleThinkingLevel", () => client.cycleThinkingLevel());
await step("modes", async () => {
  await client.setSteeringMode("all");
  await client.setFollowUpMode("all");
  await client.setAutoCompaction(false);
  await client.setAutoRetry(false);
  await client.abortRetry();
  const state = await client.getState();
  return [state.steeringMode, state.followUpMode, state.autoCompactionEnabled];
});
await step("bash", () => client.bash("echo from-bash"));
await step("abortBash", () => client.abortBash());
await step("compact", async () => Object.keys(await client.compact()).sort());
await step("getSessionStats", async () => Object.keys(await client.getSessionStats()).sort());
await step("exportHtml", async () => (await client.exportHtml(path.join(process.env.PROJECT_DIR, "out.html"))).path);
await step("getForkMessages", () => client.getForkMessages());
await step("getEntries", async () => (await client.getEntries()).entries.length);
await step("getTree", async () => typeof (await client.getTree()).leafId);
await step("setSessionName", async () => {
  await client.setSessionName("contract run");
  return (await client.getState()).sessionName;
});
await step("getCommands", async () => Array.isArray(await client.getCommands()));
const original = (await client.getState()).sessionFile;
await step("fork", async () => {
  const first = (await client.getForkMessages())[1];
  return await client.fork(first.entryId);
});
await step("clone", () => client.clone());
await step("newSession", async () => {
  const result = await client.newSession();
  return { result, messageCount: (await client.getState()).messageCount };
});
await step("switchSession", async () => {
  const result = await client.switchSession(original);
  return { result, sessionFile: (await client.getState()).sessionFile === original };
});
await client.stop();
process.stdout.write(JSON.stringify(out) + "\n");
