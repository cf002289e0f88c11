/* static locals keep their value between calls */
#include <stdio.h>
int next_id(void) { static int id = 100; return id++; }
int calls(void) { static int n; return ++n; }
int main(void) {
    next_id();
    next_id();
    calls();
    printf("%d %d\n", next_id(), calls());
    return 0;
}
