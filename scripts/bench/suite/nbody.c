/* The n-body simulation of the Computer Language Benchmarks Game, five bodies, 20 000 steps
 * (scripts/bench-suite.sh): double arithmetic on arrays, sqrt. */
#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS 365.24
#define NB 5
double x[NB], y[NB], z[NB], vx[NB], vy[NB], vz[NB], mass[NB];

void body(int i, double px, double py, double pz, double qx, double qy, double qz, double m) {
    x[i] = px; y[i] = py; z[i] = pz;
    vx[i] = qx * DAYS; vy[i] = qy * DAYS; vz[i] = qz * DAYS;
    mass[i] = m * SOLAR_MASS;
}

double energy() {
    int i, j;
    double e, dx, dy, dz;
    e = 0.0;
    for (i = 0; i < NB; i++) {
        e = e + 0.5 * mass[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        for (j = i + 1; j < NB; j++) {
            dx = x[i] - x[j]; dy = y[i] - y[j]; dz = z[i] - z[j];
            e = e - mass[i] * mass[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

void advance(double dt) {
    int i, j;
    double dx, dy, dz, d2, mag;
    for (i = 0; i < NB; i++)
        for (j = i + 1; j < NB; j++) {
            dx = x[i] - x[j]; dy = y[i] - y[j]; dz = z[i] - z[j];
            d2 = dx * dx + dy * dy + dz * dz;
            mag = dt / (d2 * sqrt(d2));
            vx[i] = vx[i] - dx * mass[j] * mag; vy[i] = vy[i] - dy * mass[j] * mag; vz[i] = vz[i] - dz * mass[j] * mag;
            vx[j] = vx[j] + dx * mass[i] * mag; vy[j] = vy[j] + dy * mass[i] * mag; vz[j] = vz[j] + dz * mass[i] * mag;
        }
    for (i = 0; i < NB; i++) {
        x[i] = x[i] + dt * vx[i]; y[i] = y[i] + dt * vy[i]; z[i] = z[i] + dt * vz[i];
    }
}

void main() {
    int i;
    double px, py, pz;
    body(0, 0, 0, 0, 0, 0, 0, 1);
    body(1, 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
         1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05, 9.54791938424326609e-04);
    body(2, 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
         -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05, 2.85885980666130812e-04);
    body(3, 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
         2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05, 4.36624404335156298e-05);
    body(4, 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
         2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05, 5.15138902046611451e-05);
    px = 0; py = 0; pz = 0;
    for (i = 0; i < NB; i++) { px = px + vx[i] * mass[i]; py = py + vy[i] * mass[i]; pz = pz + vz[i] * mass[i]; }
    vx[0] = -px / SOLAR_MASS; vy[0] = -py / SOLAR_MASS; vz[0] = -pz / SOLAR_MASS;
    printf("%.9f\n", energy());
    for (i = 0; i < 20000; i++)
        advance(0.01);
    printf("%.9f\n", energy());
}
