// The console's calls: the admin token, entered once, kept only in this tab's session storage.
import { api, ApiError } from '../api.js';

const TOKEN_KEY = 'bookmobile.admin-token';

export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An admin call (the public API's, with the admin token); a 401 forgets the token (the console asks again). */
export async function admin(path, { method = 'GET', body, raw = false } = {}) {
  try {
    return await api(path, { method, body, raw, auth: false, headers: { Authorization: `Bearer ${adminToken.get()}` } });
  } catch (error) {
    if (error.status === 401) { adminToken.clear(); document.dispatchEvent(new CustomEvent('admin-signed-out')); }
    throw error;
  }
}

/** Downloads a file with the admin token (a plain link cannot send it) and saves it under the name the server gives. */
export async function download(path) {
  const reply = await admin(path, { raw: true });
  const name = /filename="([^"]+)"/.exec(reply.headers.get('Content-Disposition') || '')?.[1] || 'download';
  const url = URL.createObjectURL(await reply.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Uploads one book's file (EPUB, PDF, audiobook) with progress (fetch cannot report an upload's progress; XMLHttpRequest can). */
export function uploadBook(file, query, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `/admin/books?${query}`);
    request.setRequestHeader('Authorization', `Bearer ${adminToken.get()}`);
    // Catalog tells the kinds apart by their bytes; the type is only a hint.
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.setRequestHeader('Accept', 'application/json');
    request.upload.addEventListener('progress', (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); });
    request.addEventListener('load', () => {
      let body = {};
      try { body = JSON.parse(request.responseText); } catch { /* keep empty */ }
      if (request.status >= 200 && request.status < 300) resolve(body);
      else reject(new ApiError(request.status, body));
    });
    request.addEventListener('error', () => reject(new ApiError(0, { title: 'The upload failed: the connection was lost' })));
    request.send(file);
  });
}
