#!/usr/bin/env node
// An MCP client written the way a third party writes one: the official TypeScript SDK
// (@modelcontextprotocol/sdk), its Client and its Streamable HTTP transport, with the bearer token
// an agent got in its Welcome. Nothing here is shared with Conclave's Java code.
//
// Steps, in order:
//   unauthorized  connecting without the token must fail with HTTP 401
//   initialize    connecting with the token (initialize + notifications/initialized)
//   list          tools/list; the allowed tool must be listed and the forbidden one must not
//   call          tools/call of the allowed tool must succeed (isError false)
//   forbidden     tools/call of the forbidden tool must fail with JSON-RPC error -32602 (invalid params)
//   close         ends the session (DELETE) and the client
//
// Usage:
//   MCP_TOKEN=<token> node mcp-client.mjs --url http://host:port/mcp \
//     --allowed note_set --allowed-args '{"key":"k","value":"v"}' \
//     --forbidden ask_user [--forbidden-args '{...}'] [--timeout-ms 15000]
//
// stdout carries one JSON object per step: {"step":..,"ok":true|false,...}; the last line is
// {"step":"done","ok":..}. The exit code is 0 only when every step behaved, 1 otherwise, 2 on bad
// usage.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const CLIENT_INFO = { name: 'conclave-e2e-mcp-client', version: '1.0.0' };

function parseArgs(argv) {
  const opts = { url: '', token: process.env.MCP_TOKEN || '', allowed: '', allowedArgs: '{}', forbidden: '', forbiddenArgs: '{}', timeoutMs: '15000' };
  const flags = {
    '--url': 'url', '--allowed': 'allowed', '--allowed-args': 'allowedArgs', '--forbidden': 'forbidden',
    '--forbidden-args': 'forbiddenArgs', '--timeout-ms': 'timeoutMs',
  };
  for (let i = 0; i < argv.length; i += 2) {
    if (!(argv[i] in flags) || argv[i + 1] === undefined) {
      throw new Error(`unknown or incomplete option '${argv[i]}'`);
    }
    opts[flags[argv[i]]] = argv[i + 1];
  }
  for (const required of ['url', 'allowed', 'forbidden']) {
    if (!opts[required]) {
      throw new Error(`--${required} is required`);
    }
  }
  if (!opts.token) {
    throw new Error('the MCP token is required in MCP_TOKEN');
  }
  opts.url = new URL(opts.url);
  opts.allowedArgs = JSON.parse(opts.allowedArgs);
  opts.forbiddenArgs = JSON.parse(opts.forbiddenArgs);
  opts.timeoutMs = Number(opts.timeoutMs);
  return opts;
}

let allOk = true;

function report(step, ok, fields = {}) {
  allOk = allOk && ok;
  process.stdout.write(JSON.stringify({ step, ok, ...fields }) + '\n');
}

function describe(err) {
  if (err instanceof McpError) {
    return { error: 'McpError', code: err.code, message: err.message.replace(/^MCP error -?\d+: /, '') };
  }
  if (err instanceof StreamableHTTPError) {
    return { error: 'StreamableHTTPError', status: err.code, message: err.message };
  }
  return { error: err?.name || 'Error', message: String(err?.message || err) };
}

function newClient() {
  return new Client(CLIENT_INFO, { capabilities: {} });
}

/** Without the token the server must answer 401 before anything else. */
async function unauthorized(opts) {
  const client = newClient();
  try {
    await client.connect(new StreamableHTTPClientTransport(opts.url), { timeout: opts.timeoutMs });
    report('unauthorized', false, { message: 'connected without a token' });
    await client.close();
  } catch (err) {
    const seen = describe(err);
    report('unauthorized', err instanceof StreamableHTTPError && err.code === 401, seen);
  }
}

async function authorized(opts) {
  const transport = new StreamableHTTPClientTransport(opts.url, {
    requestInit: { headers: { Authorization: 'Bearer ' + opts.token } },
  });
  const client = newClient();
  const timeout = { timeout: opts.timeoutMs };
  try {
    await client.connect(transport, timeout);
  } catch (err) {
    report('initialize', false, describe(err));
    return;
  }
  report('initialize', Boolean(transport.sessionId), {
    server: client.getServerVersion(), protocolVersion: transport.protocolVersion, session: Boolean(transport.sessionId),
  });
  try {
    const { tools } = await client.listTools({}, timeout);
    const names = tools.map((t) => t.name).sort();
    report('list', names.includes(opts.allowed) && !names.includes(opts.forbidden), { tools: names });

    const result = await client.callTool({ name: opts.allowed, arguments: opts.allowedArgs }, undefined, timeout);
    report('call', result.isError !== true, { tool: opts.allowed, isError: result.isError === true, content: result.content });

    try {
      const refused = await client.callTool({ name: opts.forbidden, arguments: opts.forbiddenArgs }, undefined, timeout);
      report('forbidden', false, { tool: opts.forbidden, message: 'the call was not refused', isError: refused.isError === true, content: refused.content });
    } catch (err) {
      // MCP: a tool the server does not offer this client is "invalid params"
      report('forbidden', err instanceof McpError && err.code === ErrorCode.InvalidParams, { tool: opts.forbidden, ...describe(err) });
    }
  } catch (err) {
    report('failed', false, describe(err));
  } finally {
    try {
      await transport.terminateSession();
      await client.close();
      report('close', true);
    } catch (err) {
      report('close', false, describe(err));
    }
  }
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`mcp-client: usage error: ${err.message}\n`);
    process.exit(2);
  }
  await unauthorized(opts);
  await authorized(opts);
  report('done', allOk);
  process.exitCode = allOk ? 0 : 1;
}

main().catch((err) => {
  report('crashed', false, describe(err));
  process.exitCode = 1;
});
