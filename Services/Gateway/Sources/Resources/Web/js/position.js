// The patron's place in a book (a Readium locator), sent as the reader, the player and the PDF view keep it.
import { api } from './api.js';

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
