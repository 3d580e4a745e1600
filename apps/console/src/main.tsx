import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { SessionProvider } from './session';
// the stylesheets, in cascade order: later files override earlier ones (the phone-width rules last)
import './styles/base.css';
import './styles/forms.css';
import './styles/tables.css';
import './styles/files.css';
import './styles/results.css';
import './styles/panels.css';
import './styles/phone.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/console">
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
