import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { CALLBACK_PATH, completeSignIn, createUserManager, currentUser } from './auth.ts';
import { loadConfig } from './config.ts';
import { Root } from './Root.tsx';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

async function boot() {
  const config = await loadConfig().catch((e: unknown) => e as Error);
  if (config instanceof Error) {
    root.render(
      <main className="center-page">
        <h1>The dashboard cannot start</h1>
        <p role="alert">Its configuration could not be read ({config.message}).</p>
      </main>,
    );
    return;
  }
  const userManager = createUserManager(config);
  let signInError: string | null = null;
  if (location.pathname === CALLBACK_PATH) {
    try {
      history.replaceState(null, '', await completeSignIn(userManager));
    } catch (e) {
      signInError = `Sign-in did not complete: ${e instanceof Error ? e.message : String(e)}`;
      history.replaceState(null, '', '/');
    }
  }
  const user = await currentUser(userManager);
  root.render(
    <StrictMode>
      <Root config={config} userManager={userManager} initialUser={user} initialError={signInError} />
    </StrictMode>,
  );
}

void boot();
