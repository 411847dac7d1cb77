// HTTP calls to the node. Same-origin cookie authentication; every call that changes something
// carries the CSRF header the server requires. Errors come back as ApiError with the problem's
// detail (application/problem+json: type, title, status, code, detail).

const CSRF_HEADER = 'X-Conclave-Csrf';
let unauthorizedHandler = () => {};

export class ApiError extends Error {
  constructor(status, problem) {
    const detail = problem.detail || problem.error || problem.title || `HTTP ${status}`;
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code || '';
    this.title = problem.title || '';
    this.detail = detail;
    this.problem = problem;
  }
}

/** Called (once per failing call) when the server answers 401: the session is gone. */
export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

/**
 * Calls the API and returns the parsed JSON body (null for an empty body).
 * @param {string} path absolute path, e.g. /api/v1/gateway/nodes
 * @param {{method?: string, body?: any, query?: object, auth401?: boolean}} options auth401 false
 *   keeps a 401 from ending the session (the login call itself)
 */
export async function request(path, { method = 'GET', body, query, auth401 = true } = {}) {
  const headers = { Accept: 'application/json, application/problem+json' };
  if (method !== 'GET' && method !== 'HEAD') headers[CSRF_HEADER] = '1';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let url = path;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    }
    const qs = params.toString();
    if (qs) url += `?${qs}`;
  }
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: `The node could not be reached (${e.message})`, code: 'network' });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON (a proxy's or a static server's page): name the status instead of showing markup
      data = { detail: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${path}` };
    }
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data && typeof data === 'object' ? data : {});
    // a 401 ends the session, except a token of the wrong purpose (a read-only 'bridge' session)
    if (response.status === 401 && auth401 && error.code !== 'token_wrong_purpose') unauthorizedHandler(error);
    throw error;
  }
  return data;
}

export const get = (path, query) => request(path, { query });
export const post = (path, body = {}) => request(path, { method: 'POST', body });
export const del = (path) => request(path, { method: 'DELETE' });

/** Encodes one path segment (agent ids may hold ':' and '@'). */
export const seg = (value) => encodeURIComponent(value);

const GW = '/api/v1/gateway';

// The calls the console makes, in one place.
export const api = {
  session: () => request('/auth/session', { auth401: false }),
  login: (token) => request('/auth/session', { method: 'POST', body: { token }, auth401: false }),
  logout: () => request('/auth/session', { method: 'DELETE', auth401: false }),

  nodes: () => get(`${GW}/nodes`),
  agents: () => get(`${GW}/agents`),
  events: (key, query) => get(`${GW}/conversations/${seg(key)}/events`, query),
  // an agent's own conversation has the agent id as its key
  sendMessage: (agentId, body) => post(`${GW}/conversations/${seg(agentId)}/messages`, body),
  cancelRequest: (requestId, reason) => post(`${GW}/requests/${seg(requestId)}/cancel`, reason ? { reason } : {}),
  request: (requestId) => get(`${GW}/requests/${seg(requestId)}`),
  inject: (agentId, body) => post(`${GW}/agents/${seg(agentId)}/inject`, body),
  approve: (body) => post(`${GW}/approvals`, body),
  answer: (questionId, body) => post(`${GW}/questions/${seg(questionId)}/answer`, body),
  usage: (agentId) => get(`${GW}/usage/agents/${seg(agentId)}`),

  principals: () => get(`${GW}/principals`),
  approvePrincipal: (id) => post(`${GW}/principals/${seg(id)}/approve`),
  tokens: (principalId) => get(`${GW}/principals/${seg(principalId)}/tokens`),
  revokeToken: (tokenId) => del(`${GW}/tokens/${seg(tokenId)}`),
  bindings: () => get(`${GW}/bindings`),
  packs: () => get('/api/v1/packs'),

  tasks: (query) => get('/api/v1/tasks', query),
  task: (id) => get(`/api/v1/tasks/${seg(id)}`),
  taskHistory: (id) => get(`/api/v1/tasks/${seg(id)}/history`),
  createTask: (task) => post('/api/v1/tasks', task),
  cancelTask: (id, reason) => post(`/api/v1/tasks/${seg(id)}/cancel`, reason ? { reason } : {}),
  retryTask: (id) => post(`/api/v1/tasks/${seg(id)}/retry`, {}),
  bulkTasks: (body) => post('/api/v1/tasks/bulk', body),
  reviewTask: (id, decision, reason) => post(`/api/v1/tasks/${seg(id)}/review`, { decision, reason }),
  swarmAgents: () => get('/api/v1/agents'),
  command: (agentId, command) => post(`/api/v1/agents/${seg(agentId)}/commands`, command),
  schedules: () => get('/api/v1/schedules'),
  createSchedule: (schedule) => post('/api/v1/schedules', schedule),
  deleteSchedule: (name) => del(`/api/v1/schedules/${seg(name)}`),
  learnings: (q, limit = 5) => get('/api/v1/learnings', { q, limit }),
};
