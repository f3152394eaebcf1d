// The patron's place in a book (a Readium locator), sent as the reader, the player and the PDF view keep it.
import { api } from './api.js';

/**
 * The patron's position in the book (the server's answer), or null when none is kept. A failure that is not "none"
 * (a 5xx, the network) is asked once more: a view that opened at the start instead would show the wrong place, and
 * the patron's first move would then save over the right one.
 */
export async function readPosition(bookId) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      return await api(`/me/books/${bookId}/position`);
    } catch (error) {
      if (error.status === 404 || error.status === 403) return null;
    }
  }
  return null;
}

/**
 * Saves `locator` as the patron's position in the book, stamped now from this device; true once the server has it
 * (or the outbox holds it while offline), false when the server kept a newer place from another device.
 */
export async function sendPosition(bookId, locator) {
  try {
    await api(`/me/books/${bookId}/position`, { method: 'PUT', body: { locator, timestamp: new Date().toISOString(), device: 'web' } });
    return true;
  } catch {
    return false;
  }
}
