/* a struct cannot contain itself, only point to itself */
struct s { int v; struct s inner; };
int main(void) { return 0; }
