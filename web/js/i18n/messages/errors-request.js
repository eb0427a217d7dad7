// Templates for the core's messages of one area, merged into MESSAGES by ../messages.js (same rules as there).
export default {
  en: {
  },
  de: {
  },
};
