/* a pointer to a struct defined later */
#include <stdio.h>
struct owner;
struct pet { int legs; struct owner *who; };
struct owner { int age; struct pet *pet; };
int main(void) {
    struct owner o;
    struct pet p;
    o.age = 30; o.pet = &p;
    p.legs = 4; p.who = &o;
    printf("%d %d\n", o.pet->legs, p.who->age);
    return 0;
}
