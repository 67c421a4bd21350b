if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 900,600
} else {
  set terminal png size 900,600
}
set termoption noenhanced
set output 'docs/replay/cloudPhysicsIO.png'
set title 'miss ratio: /work/shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin (oracleGeneral)'
set logscale x
set xlabel 'cache size (objects)'
set ylabel 'miss ratio'
set yrange [0:1]
set grid
set key bottom left
plot 'docs/replay/cloudPhysicsIO.dat' index 0 using 1:2 with linespoints title 'lru (exact)', \
     'docs/replay/cloudPhysicsIO.dat' index 1 using 1:2 with linespoints title 'linux-classic (fd)'
