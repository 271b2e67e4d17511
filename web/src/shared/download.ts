/** Files the client hands to the browser to save (the member's statement, a statement in the back office). */

/** Saves `blob` as `name` through an object URL and a download link (freed once the click has gone). */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
