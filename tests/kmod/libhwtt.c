int hwtt_value(void);
int hwtt_value(void) { return 42; }
