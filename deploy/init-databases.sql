CREATE DATABASE bookmobile_catalog;
CREATE DATABASE bookmobile_patron;
