package notation

// Distance and DistCap expose the distance of suggestions to tests.
var Distance = osa

const DistCap = distCap
