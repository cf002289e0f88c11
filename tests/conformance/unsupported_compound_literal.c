/* compound literals are named as not supported */
struct p { int x, y; };
int main(void) { struct p a; a = (struct p){1, 2}; return a.x; }
