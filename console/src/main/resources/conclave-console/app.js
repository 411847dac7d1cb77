// The console's entry point: checks the session, then shows the login screen or the app, whose
// view follows the location's hash. Every view is live over the event bus.
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { html } from './lib/html.js';
import { clearError } from './lib/errors.js';
import { route, startRouter } from './lib/router.js';
import { auth, start } from './lib/session.js';
import { useStore } from './lib/store.js';
import { startAgents, stopAgents } from './state/agents.js';
import { ErrorBanner } from './components/ErrorBanner.js';
import { Header } from './components/Header.js';
import { AdminOnly } from './components/Notice.js';
import { Admin } from './views/Admin.js';
import { Agents } from './views/Agents.js';
import { Cluster } from './views/Cluster.js';
import { Conversation } from './views/Conversation.js';
import { Login } from './views/Login.js';
import { Schedules } from './views/Schedules.js';
import { SwarmBoard } from './views/Swarm.js';
import { TaskDetail } from './views/TaskDetail.js';

function View({ current, admin }) {
  switch (current.view) {
    case 'agents': return html`<${Agents} />`;
    case 'conversation': return html`<${Conversation} key=${current.agentId} agentId=${current.agentId} />`;
    case 'swarm': return admin ? html`<${SwarmBoard} />` : html`<${AdminOnly} what="The swarm's task board" />`;
    case 'task': return admin ? html`<${TaskDetail} key=${current.taskId} taskId=${current.taskId} />` : html`<${AdminOnly} what="Swarm tasks" />`;
    case 'schedules': return admin ? html`<${Schedules} />` : html`<${AdminOnly} what="Schedules (periodic swarm tasks)" />`;
    case 'admin': return admin ? html`<${Admin} />` : html`<${AdminOnly} what="Administration" />`;
    default: return html`<${Cluster} />`;
  }
}

function Shell({ session }) {
  const current = useStore(route);
  useEffect(() => {
    startAgents(Boolean(session.admin));
    return stopAgents;
  }, [session.principalId, session.admin]);
  useEffect(clearError, [current.view, current.agentId, current.taskId]);
  return html`<div class="app">
    <${Header} session=${session} active=${current.view} />
    <${ErrorBanner} />
    <main class="main" id="main"><${View} current=${current} admin=${Boolean(session.admin)} /></main>
  </div>`;
}

function App() {
  const state = useStore(auth);
  if (state.status === 'active') return html`<${Shell} session=${state.session} />`;
  if (state.status === 'checking') {
    return html`<div class="app"><${Header} session=${null} /><main class="main"><p class="muted center">Connecting…</p></main></div>`;
  }
  return html`<div class="app"><${Header} session=${null} /><${Login} expired=${state.expired} checkError=${state.checkError} /></div>`;
}

startRouter();
render(html`<${App} />`, document.getElementById('app'));
start();
