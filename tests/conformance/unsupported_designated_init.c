/* designated initialisers are named as not supported */
struct p { int x, y; };
int main(void) { struct p a = { .y = 2, .x = 1 }; return a.x; }
