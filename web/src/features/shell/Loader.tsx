/** Full-screen loader shown until the app is ready. Its text is the one string allowed before a language file exists. */
export function Loader({ label }: { label: string }) {
  return (
    <div className="loader" role="status" aria-live="polite" data-testid="app-loader">
      <div className="loader__spinner" aria-hidden="true" />
      <p className="loader__label">{label}</p>
    </div>
  );
}
