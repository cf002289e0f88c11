/* arrays of structs */
#include <stdio.h>
struct item { int id; int qty; };
int main(void) {
    struct item inv[4];
    int i, total = 0;
    for (i = 0; i < 4; i++) { inv[i].id = 100 + i; inv[i].qty = i * 3; }
    for (i = 0; i < 4; i++) total += inv[i].qty;
    printf("%d %d %d\n", inv[2].id, inv[3].qty, total);
    return 0;
}
