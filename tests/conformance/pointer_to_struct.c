/* -> on pointers to structs */
#include <stdio.h>
struct acc { int balance; int ops; };
void deposit(struct acc *a, int amount) { a->balance += amount; a->ops++; }
int main(void) {
    struct acc a = {100, 0};
    struct acc *p = &a;
    deposit(p, 50);
    deposit(&a, 25);
    printf("%d %d %d\n", a.balance, p->ops, (*p).balance);
    return 0;
}
