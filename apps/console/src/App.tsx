import { useEffect, useRef } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { useSession } from './session';
import { SignInPage } from './pages/SignInPage';
import { StoresPage } from './pages/StoresPage';
import { StorePage } from './pages/StorePage';
import { FilePage } from './pages/FilePage';
import { PlaygroundPage } from './pages/PlaygroundPage';
import { ActivityPage } from './pages/ActivityPage';
import { KeysPage } from './pages/KeysPage';

const NAV = [
  { to: '/stores', label: 'Stores' },
  { to: '/search', label: 'Search' },
  { to: '/activity', label: 'Activity & costs' },
  { to: '/keys', label: 'API keys' },
];

export function App() {
  const { api, signOut } = useSession();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  // After a page change, move focus to the page's content so keyboard and screen-reader users start there.
  useEffect(() => {
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);

  if (!api) return <SignInPage />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Larder</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.to}>
                <NavLink to={n.to}>{n.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="signout" onClick={() => signOut(null)}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Routes>
          <Route path="/" element={<Navigate to="/stores" replace />} />
          <Route path="/stores" element={<StoresPage />} />
          <Route path="/stores/:storeId" element={<StorePage />} />
          <Route path="/stores/:storeId/files/:fileId" element={<FilePage />} />
          <Route path="/search" element={<PlaygroundPage />} />
          <Route path="/activity" element={<ActivityPage />} />
          <Route path="/keys" element={<KeysPage />} />
          <Route path="*" element={<p>There is no such page. Pick one from the menu.</p>} />
        </Routes>
      </main>
    </>
  );
}
