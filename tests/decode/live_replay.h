/* profile_tool live: the decode while recording on a bundle copied in piece by piece. */
#ifndef HWT_LIVE_REPLAY_H
#define HWT_LIVE_REPLAY_H

int hwt_live_replay_main(const char *src, const char *dest, const char *out, int grow);

#endif
